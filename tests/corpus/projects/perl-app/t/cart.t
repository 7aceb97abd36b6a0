use strict;
use warnings;
use Test::More tests => 4;

use Shop::Cart;

my $cart = Shop::Cart->new->add('tea', 10)->add('cake', 20);
is($cart->total, 30, 'total sums the prices');
is($cart->names, 'tea, cake', 'names are joined');
ok(Shop::Cart->new->add('tea', 10), 'add returns the cart');
is(Shop::Cart->new->total, 0, 'an empty cart costs nothing');
