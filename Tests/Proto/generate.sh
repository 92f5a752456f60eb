#!/bin/sh
# Regenerates Tests/CourierProtobufTests/courier_test.pb.swift. Run by hand
# only when courier_test.proto changes; CI never runs it.
#
# Needs protoc (Debian: apt-get install protobuf-compiler) and a protoc-gen-swift
# built from the resolved swift-protobuf checkout, outside the package:
#   swift build --package-path .build/checkouts/swift-protobuf \
#       --product protoc-gen-swift --scratch-path /tmp/protoc-gen-swift-build
set -eu
cd "$(dirname "$0")/../.."
plugin="${PROTOC_GEN_SWIFT:-/tmp/protoc-gen-swift-build/debug/protoc-gen-swift}"
protoc --plugin=protoc-gen-swift="$plugin" --swift_opt=Visibility=Internal \
    --proto_path=Tests/Proto --swift_out=Tests/CourierProtobufTests Tests/Proto/courier_test.proto
