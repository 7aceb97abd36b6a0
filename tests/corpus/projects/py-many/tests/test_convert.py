import pytest

from rates import convert


@pytest.mark.parametrize("amount", range(60))
def test_convert_euro(amount):
    assert convert(amount, 1.0) == amount


@pytest.mark.parametrize("amount", range(60))
def test_convert_double(amount):
    assert convert(amount, 2.0) == amount * 2
