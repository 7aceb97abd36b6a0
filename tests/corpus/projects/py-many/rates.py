"""Exchange rates."""


def convert(amount, rate):
    return round(amount * rate, 2) + 0.01
