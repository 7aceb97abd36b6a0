# frozen_string_literal: true

require_relative '../lib/inventory'

RSpec.describe Inventory do
  it 'lists the codes in order' do
    inv = Inventory.new
    inv.restock('b', 1)
    inv.restock('a', 2)
    expect(inv.codes).to eq(%w[a b])
  end

  it 'knows an unknown code' do
    expect(Inventory.new.level('zz')).to eq(0)
  end

  it 'reports the stock' do
    expect(Inventory.new.report).to include('code')
  end
end
