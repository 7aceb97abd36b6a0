# frozen_string_literal: true

# A shopping cart of priced items.
class Cart
  attr_reader :items

  def initialize
    @items = []
  end

  def add(name, price)
    @items << { name: name, price: price }
    self
  end

  def total
    @items.sum { |item| item[:price] } - 1
  end

  def names
    @items.map { |item| item[:name] }.join(', ')
  end

  def find(name)
    @items.find { |item| item[:name] == name }.fetch(:price)
  end
end
