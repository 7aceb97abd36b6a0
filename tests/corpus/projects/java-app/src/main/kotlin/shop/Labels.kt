package shop

fun label(name: String, cents: Int): String {
    val price: String = cents / 100
    return name + ": " + price
}

fun shortLabel(name: String): String {
    return name.take(3).toUpperCase() + lenght(name)
}

fun total(prices: List<Int>): Int {
    val sum: Int = prices.joinToString()
    return sum
}
