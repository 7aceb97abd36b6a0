#!/bin/bash
# Deploys the site to a target directory.
set -e

target=$1
release_name="site-$(date +%Y%m%d)"
unused_flag=yes

cd $target
cp -r build/* $target/
rm -rf $(ls -d old-*)
echo "deployed $release_name"
