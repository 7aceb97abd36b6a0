package shop

fun double(value: Int): Int = value * 2
