# frozen_string_literal: true

require 'minitest/autorun'
require_relative '../lib/discount'

class TestDiscount < Minitest::Test
  def test_apply
    assert_equal 180, Discount.apply(200, 10)
  end

  def test_full_discount
    assert_equal 0, Discount.apply(50, 150)
  end

  def test_code
    assert_includes Discount.code_for({ tier: 'gold' }), 'GOLD'
  end
end
