#!/bin/sh
# Rotate the logs of one service.
keep_days=7
logdir=/var/log/$1
for f in $logdir/*.log; do
	mv "$f" "$f.old"
done
