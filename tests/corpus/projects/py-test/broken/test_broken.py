from shop.calc import add


def test_add_broken():
    assert add(1, 1) == 2
    return [
