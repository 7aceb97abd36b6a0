use strict;
use warnings;
use Test::More;

use_ok('Shop::Cart');
isa_ok(Shop::Cart->new, 'Shop::Cart');

done_testing();
