use strict;
use warnings;
use Test::More;

use Shop::Cart;

my $cart = Shop::Cart->new->add('tea', 10);
is($cart->price_of('tea'), 10, 'price of tea');
is($cart->price_of('milk'), 0, 'price of a missing item');

done_testing();
