import sys


def place(shelf: str, slot: int) -> str:
    return f"{shelf}-{slot}"


def first_place() -> str:
    return place("A", "1")
