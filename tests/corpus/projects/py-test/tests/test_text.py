from shop.text import shorten, slug


def test_slug():
    assert slug("Hello World") == "hello-world"


def test_shorten():
    assert shorten("abc", 5) == "abc"
