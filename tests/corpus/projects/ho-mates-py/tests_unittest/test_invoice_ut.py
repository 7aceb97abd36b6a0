import unittest

from billing.invoice import invoice_total


class InvoiceTest(unittest.TestCase):
    def test_total(self):
        self.assertEqual(invoice_total([(1, 7)]), 7)


if __name__ == "__main__":
    unittest.main()
