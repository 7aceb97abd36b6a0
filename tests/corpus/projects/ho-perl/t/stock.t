use strict;
use warnings;
use Test::More;

use Stock;

my $s = Stock->new->restock('b', 1)->restock('a', 2);
is_deeply($s->codes, [ 'a', 'b' ], 'codes are sorted');
like($s->label('a'), qr/^item/, 'label names the item');
ok(defined $s->{levels}{a}, 'a is stocked');

done_testing();
