// swift-tools-version: 6.1
import PackageDescription

// libFuzzer harnesses for every parser of outside input, built only with
// `--sanitize=fuzzer --sanitize=address` by `Fuzz/run` (a nested package, so
// that the main package's builds never see them). Each harness is one file
// defining `LLVMFuzzerTestOneInput`; libFuzzer supplies `main`. Harnesses reach
// internal parsers with `@testable import`, which debug builds allow.

let harnesses: [(name: String, products: [String])] = [
    ("CacheControl", []),
    ("HTTPDate", []),
    ("RetryAfter", ["CourierRetry"]),
    ("CacheFile", []),
    ("CredentialFile", ["CourierAuth"]),
    ("JSONKeyPath", ["CourierCodable", "CourierJSON", "CourierString"]),
    ("ImageHeader", ["CourierImage"]),
    ("Charset", ["CourierString"]),
    ("Gzip", ["CourierGzip"]),
    ("ContentDisposition", []),
    ("ParameterEncoding", []),
    ("TrustAndLength", []),
    ("EventStream", []),
    ("JSONValueMapper", ["CourierJSON", "CourierCodable"]),
    ("ImageMapper", ["CourierImage"]),
    ("XMLMapper", ["CourierXML"]),
    ("YAMLMapper", ["CourierYAML"]),
    ("ProtobufMapper", ["CourierProtobuf"]),
]

let package = Package(
    name: "CourierFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        // The mappers of XML, YAML and Protobuf need their traits, and so their
        // packages. The cache's parsers are linked into their harnesses from
        // Plugins/Cache instead (see Sources/CacheFile): its trait would bring
        // swift-crypto, and BoringSSL compiled under AddressSanitizer took
        // about half of the harnesses' build.
        .package(name: "Courier", path: "..", traits: ["XML", "YAML", "Protobuf"]),
        // The message types of the Protobuf harness (the root package resolves it already).
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
    ],
    targets: harnesses.map { harness in
        .executableTarget(
            name: "Fuzz\(harness.name)",
            dependencies: ([.product(name: "Courier", package: "Courier")]
                + harness.products.map { .product(name: $0, package: "Courier") }
                + (harness.name == "ProtobufMapper" ? [.product(name: "SwiftProtobuf", package: "swift-protobuf")] : [])),
            path: "Sources/\(harness.name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    },
    swiftLanguageModes: [.v6]
)
