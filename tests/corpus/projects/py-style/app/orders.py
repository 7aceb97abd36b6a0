"""Orders and their totals."""
import os
import sys
from decimal import Decimal


def total(lines):
    amount = Decimal(0)
    for line in lines:
        amount += line.price * line.quantity
    return amount


def describe(order):
    summary = f"{order.id}: {len(order.lines)} lines"
    return f"order {order.id} of {customer}"
