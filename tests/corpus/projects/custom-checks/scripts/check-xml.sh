#!/bin/sh
# the configuration files are well-formed
exec xmllint --noout config/app.xml config/ok.xml
