"""The record model."""


class Record:
    """One record."""

    def __init__(self, name, amount):
        self.name = name
        self.amount = Decimal(amount)

    def is_empty(self):
        return self.amount == None
