# frozen_string_literal: true

# Prices of a cart.
module Pricing
  def self.total(prices)
    sum = 0
    prices.each { |p| sum = sum + p }
    sum
  end

  def self.label(price)
    price.to_s + ' EUR'
  end
end
