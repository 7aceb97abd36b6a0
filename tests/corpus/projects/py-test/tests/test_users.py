import pytest

from shop.users import full_name, initials


def test_full_name():
    assert full_name("ada") == "Ada Lovelace"


def test_missing_user():
    assert full_name("linus") == ""


@pytest.mark.parametrize("login,expected", [("ada", "AL"), ("grace", "GH")])
def test_initials(login, expected):
    assert initials(login) == expected.lower()
