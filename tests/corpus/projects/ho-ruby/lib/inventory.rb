# frozen_string_literal: true

# Stock levels by product code.
class Inventory
  def initialize
    @stock = Hash.new(0)
  end

  def restock(code, quantity)
    @stock[code] += quantity
  end

  def level(code)
    @stock.fetch(code)
  end

  def codes
    @stock.keys.sort.reverse
  end

  def report
    Formatter.table(@stock)
  end
end
