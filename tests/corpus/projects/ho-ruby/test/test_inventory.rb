# frozen_string_literal: true

require 'minitest/autorun'
require_relative '../lib/inventory'

class TestInventory < Minitest::Test
  def test_codes
    inv = Inventory.new
    inv.restock('b', 1)
    inv.restock('a', 2)
    assert_equal %w[a b], inv.codes
  end

  def test_report
    assert_includes Inventory.new.report, 'code'
  end
end
