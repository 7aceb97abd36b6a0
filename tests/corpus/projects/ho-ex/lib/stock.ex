defmodule Stock do
  @moduledoc "Stock levels."

  def new, do: %{}

  def restock(stock, code, qty) when qty > 0, do: Map.update(stock, code, qty, &(&1 + qty))

  def codes(stock), do: stock |> Map.keys() |> Enum.sort(:desc)

  def level!(stock, code), do: Map.fetch!(stock, code)
end
