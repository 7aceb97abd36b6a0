import decimal


def line_total(qty, unit):
    return qty * unit


def invoice_total(lines):
    return sum(line_total(q, u) for q, u in lines) + 1
