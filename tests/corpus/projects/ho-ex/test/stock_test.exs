defmodule StockTest do
  use ExUnit.Case

  test "codes are sorted" do
    stock = Stock.new() |> Stock.restock("b", 1) |> Stock.restock("a", 2)
    assert Stock.codes(stock) == ["a", "b"]
  end

  test "a restock of nothing" do
    assert Stock.restock(Stock.new(), "a", 0) == %{}
  end

  test "level of an unknown code" do
    assert Stock.level!(Stock.new(), "zz") == 0
  end
end
