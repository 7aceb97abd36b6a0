defmodule Shop.CartTest do
  use ExUnit.Case

  alias Shop.Cart

  test "total sums the prices" do
    cart = Cart.new() |> Cart.add("tea", 10) |> Cart.add("cake", 20)
    assert Cart.total(cart) == 30
  end

  test "names are joined" do
    cart = Cart.new() |> Cart.add("tea", 10) |> Cart.add("cake", 20)
    assert Cart.names(cart) == "tea, cake"
  end

  test "price of a missing item" do
    assert Cart.price!(Cart.new(), "milk") == 0
  end

  test "an empty cart" do
    assert Cart.new() == []
  end
end
