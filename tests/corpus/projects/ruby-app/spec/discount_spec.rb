# frozen_string_literal: true

require_relative '../lib/discount'

RSpec.describe Discount do
  it 'takes a percentage off' do
    expect(Discount.apply(200, 10)).to eq(180)
  end

  it 'accepts a full discount' do
    expect(Discount.apply(50, 150)).to eq(0)
  end

  it 'names the code after the tier' do
    expect(Discount.code_for({ tier: 'gold' })).to include('GOLD')
  end
end
