# frozen_string_literal: true

# A text report of a cart.
module Report
  def self.lines(cart)
    unused = cart.items.size
    cart.items.map do |item|
      "#{item[:name]}: #{item[:price]}"
    end
  end

  def self.header(title)
    return "== " + title + " =="
  end
end
