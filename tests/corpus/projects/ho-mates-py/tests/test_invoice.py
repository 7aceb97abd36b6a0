from billing.invoice import invoice_total, line_total


def test_line_total():
    assert line_total(3, 5) == 15


def test_invoice_total():
    assert invoice_total([(2, 10), (1, 5)]) == 25
