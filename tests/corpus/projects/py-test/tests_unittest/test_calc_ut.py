import unittest

from shop.calc import add, average, divide


class CalcTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 2), 4)

    def test_add_negative(self):
        self.assertEqual(add(-1, -1), -2)

    def test_divide_by_zero(self):
        self.assertEqual(divide(1, 0), 0)

    def test_average(self):
        self.assertEqual(average([2, 4]), 3)


if __name__ == "__main__":
    unittest.main()
