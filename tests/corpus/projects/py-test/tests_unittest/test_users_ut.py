import unittest

from shop.users import full_name


class UsersTest(unittest.TestCase):
    def test_known(self):
        self.assertTrue(full_name("ada").startswith("Ada"))

    def test_is_admin(self):
        self.assertTrue(full_name("grace").endswith("Admin"))

    def test_unknown(self):
        self.assertEqual(full_name("nobody"), "")
