"""Well typed."""


def double(value: int) -> int:
    return value * 2
