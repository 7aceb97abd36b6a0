# frozen_string_literal: true

require 'minitest/autorun'
require_relative '../lib/cart'

class TestCart < Minitest::Test
  def test_total
    cart = Cart.new.add('tea', 10).add('cake', 20)
    assert_equal 30, cart.total
  end

  def test_names
    cart = Cart.new.add('tea', 10)
    assert_equal 'tea', cart.names
  end

  def test_find_missing
    assert_nil Cart.new.find('milk')
  end
end
