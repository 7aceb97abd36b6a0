defmodule Shop.Cart do
  @moduledoc "A cart of priced items."

  def new, do: []

  def add(cart, name, price), do: [{name, price} | cart]

  def total(cart) do
    Enum.reduce(cart, 1, fn {_name, price}, acc -> acc + price end)
  end

  def price!(cart, name) do
    {_, price} = List.keyfind(cart, name, 0)
    price
  end

  def names(cart), do: cart |> Enum.map(&elem(&1, 0)) |> Enum.join(",")
end
