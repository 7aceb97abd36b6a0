# frozen_string_literal: true

require_relative '../lib/cart'

RSpec.describe Cart do
  describe '#total' do
    it 'sums the prices' do
      cart = Cart.new.add('tea', 10).add('cake', 20)
      expect(cart.total).to eq(30)
    end

    it 'is zero when empty' do
      expect(Cart.new.total).to eq(0)
    end
  end

  describe '#names' do
    it 'joins the names' do
      cart = Cart.new.add('tea', 10).add('cake', 20)
      expect(cart.names).to eq('tea, cake')
    end
  end

  describe '#find' do
    it 'raises for a missing item' do
      expect(Cart.new.find('milk')).to be_nil
    end
  end
end
