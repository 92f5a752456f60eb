// swift-tools-version: 6.1
import PackageDescription

// The benchmark package: measures Courier against the bare clients it wraps.
// Run with `swift run -c release --package-path Benchmarks courier-bench`.

let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.9.0"..<"5.0.0"),
    ],
    targets: [
        // zlib called directly, for the bare side of the gzip benchmark.
        .systemLibrary(name: "CZlibBench", path: "Sources/CZlibBench"),
        // Counts malloc calls by interposing malloc in the benchmark executable.
        .target(name: "CMallocCounter", path: "Sources/CMallocCounter"),
        .executableTarget(
            name: "courier-bench",
            dependencies: [
                "CZlibBench",
                "CMallocCounter",
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierCodable", package: "Courier"),
                .product(name: "CourierGzip", package: "Courier"),
                .product(name: "CourierCache", package: "Courier"),
                .product(name: "CourierAsyncHTTPClient", package: "Courier"),
                .product(name: "CourierAuth", package: "Courier"),
                .product(name: "CourierLogging", package: "Courier"),
                .product(name: "CourierRetry", package: "Courier"),
                .product(name: "CourierTracing", package: "Courier"),
                .product(name: "CourierMetrics", package: "Courier"),
                .product(name: "CourierPostgres", package: "Courier"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/courier-bench",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Memory cache hits against a locked dictionary, small enough for
        // valgrind's callgrind to count instructions.
        .executableTarget(
            name: "cache-probe",
            dependencies: [.product(name: "CourierCache", package: "Courier")],
            path: "Sources/cache-probe",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
