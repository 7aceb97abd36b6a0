#!/bin/sh
# Backs up the database.
src_dir=$1
dest=$2

tar -czf $dest/backup.tgz "$src_dir"
echo "backup written to $dest"
