"""Nothing wrong here."""


def double(value: int) -> int:
    return value * 2
