# frozen_string_literal: true

# Discounts on a price, in percent.
module Discount
  def self.apply(price, percent)
    raise ArgumentError, "percent out of range: #{percent}" if percent > 100

    price - (price * percent / 100)
  end

  def self.code_for(customer)
    customer.fetch(:tier).upcase
  end
end
