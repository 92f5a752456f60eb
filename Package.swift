// swift-tools-version: 6.1
import PackageDescription

// Courier: a core provider with no package dependency, and plugin and mapper
// products beside it. Each product depends on `Courier` and on the one field
// library it wraps, never on another plugin or mapper (one exception:
// CourierCombine, below).

// MARK: - Traits
//
// Every optional package dependency is used only `.when(traits:)` its trait is
// on. All traits are on by default, so adding a product just works; a consumer
// who names only the traits it needs resolves only those packages:
//
//     .package(url: "https://github.com/OWNER/Courier", from: "1.0.0", traits: ["Logging"])
//
// A product used with its trait off fails to compile with an `#error` that
// names the trait.

let traits: Set<Trait> = [
    .trait(
        name: "AsyncHTTPClient",
        description: "CourierAsyncHTTPClient, and the SwiftNIO loopback server of the demo, examples and tests."
    ),
    .trait(name: "Combine", description: "CourierCombine (Combine on Apple platforms, OpenCombine elsewhere)."),
    .trait(name: "Logging", description: "CourierLogging, on swift-log."),
    .trait(name: "Cache", description: "CourierCache, on swift-crypto (its SHA-256 and HMAC-SHA256)."),
    .trait(name: "XML", description: "CourierXML, on XMLCoder."),
    .trait(name: "YAML", description: "CourierYAML, on Yams."),
    .trait(name: "Protobuf", description: "CourierProtobuf, on SwiftProtobuf."),
    .trait(name: "OpenAPI", description: "CourierOpenAPI, on swift-openapi-runtime and swift-http-types."),
    .trait(name: "Tracing", description: "CourierTracing, on swift-distributed-tracing."),
    .trait(name: "Metrics", description: "CourierMetrics, on swift-metrics."),
    .trait(
        name: "Postgres",
        description: "CourierPostgres, on postgres-nio (and the swift-service-lifecycle it brings), and the Fleet example.",
        enabledTraits: ["Cache"]
    ),
    .default(enabledTraits: [
        "AsyncHTTPClient", "Combine", "Logging", "Cache", "XML", "YAML", "Protobuf", "OpenAPI", "Tracing", "Metrics", "Postgres",
    ]),
]

func when(_ trait: String) -> TargetDependencyCondition? {
    .when(traits: [trait])
}

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio", condition: when("AsyncHTTPClient")),
    .product(name: "NIOPosix", package: "swift-nio", condition: when("AsyncHTTPClient")),
    .product(name: "NIOHTTP1", package: "swift-nio", condition: when("AsyncHTTPClient")),
    .product(name: "NIOSSL", package: "swift-nio-ssl", condition: when("AsyncHTTPClient")),
]

// MARK: - Products

let products: [Product] = [
    .library(name: "Courier", targets: ["Courier"]),
    .library(name: "CourierLogging", targets: ["CourierLogging"]),
    .library(name: "CourierAuth", targets: ["CourierAuth"]),
    .library(name: "CourierGzip", targets: ["CourierGzip"]),
    .library(name: "CourierCache", targets: ["CourierCache"]),
    .library(name: "CourierRetry", targets: ["CourierRetry"]),
    .library(name: "CourierCombine", targets: ["CourierCombine"]),
    .library(name: "CourierAsyncHTTPClient", targets: ["CourierAsyncHTTPClient"]),
    .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
    .library(name: "CourierTracing", targets: ["CourierTracing"]),
    .library(name: "CourierMetrics", targets: ["CourierMetrics"]),
    .library(name: "CourierPostgres", targets: ["CourierPostgres"]),
    .library(name: "CourierCodable", targets: ["CourierCodable"]),
    .library(name: "CourierJSON", targets: ["CourierJSON"]),
    .library(name: "CourierString", targets: ["CourierString"]),
    .library(name: "CourierImage", targets: ["CourierImage"]),
    .library(name: "CourierXML", targets: ["CourierXML"]),
    .library(name: "CourierYAML", targets: ["CourierYAML"]),
    .library(name: "CourierProtobuf", targets: ["CourierProtobuf"]),
]

// MARK: - Targets

var targets: [Target] = [
    // Core
    .target(name: "Courier", path: "Core"),

    // Plugins
    .target(
        name: "CourierLogging",
        dependencies: ["Courier", .product(name: "Logging", package: "swift-log", condition: when("Logging"))],
        path: "Plugins/Logging"
    ),
    .target(name: "CourierAuth", dependencies: ["Courier"], path: "Plugins/Auth"),
    .systemLibrary(
        name: "CZlib",
        path: "Plugins/Gzip/CZlib",
        pkgConfig: "zlib",
        providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
    ),
    .target(name: "CourierGzip", dependencies: ["Courier", "CZlib"], path: "Plugins/Gzip", exclude: ["CZlib"]),
    // CourierCache hashes keys and bodies with swift-crypto (HMAC-SHA256 names
    // the disk cache's files).
    .target(
        name: "CourierCache",
        dependencies: ["Courier", .product(name: "Crypto", package: "swift-crypto", condition: when("Cache"))],
        path: "Plugins/Cache"
    ),
    .target(name: "CourierRetry", dependencies: ["Courier"], path: "Plugins/Retry"),
    // CourierCombine also depends on three mappers, for Moya's `map(_:)`,
    // `mapJSON()` and `mapString()` operators on publishers of responses:
    // those mappers are Foundation only, so this resolves and builds no other
    // package (the one exception to "never on another plugin or mapper").
    .target(
        name: "CourierCombine",
        dependencies: [
            "Courier", "CourierCodable", "CourierJSON", "CourierString",
            .product(name: "OpenCombine", package: "OpenCombine",
                     condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd], traits: ["Combine"])),
        ],
        path: "Plugins/Adapters/Combine"
    ),
    .target(
        name: "CourierAsyncHTTPClient",
        dependencies: [
            // CourierGzip's decompressor undoes Content-Encoding (zlib, which
            // AsyncHTTPClient links anyway).
            "Courier", "CourierGzip",
            .product(name: "AsyncHTTPClient", package: "async-http-client", condition: when("AsyncHTTPClient")),
            // The handshake event of the trust diagnosis.
            .product(name: "NIOTLS", package: "swift-nio", condition: when("AsyncHTTPClient")),
        ] + nio,
        path: "Plugins/Transports/AsyncHTTPClient"
    ),
    .target(
        name: "CourierOpenAPI",
        dependencies: [
            "Courier",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: when("OpenAPI")),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: when("OpenAPI")),
        ],
        path: "Plugins/Adapters/OpenAPI"
    ),
    .target(
        name: "CourierTracing",
        dependencies: ["Courier", .product(name: "Tracing", package: "swift-distributed-tracing", condition: when("Tracing"))],
        path: "Plugins/Tracing"
    ),
    .target(
        name: "CourierMetrics",
        dependencies: ["Courier", .product(name: "CoreMetrics", package: "swift-metrics", condition: when("Metrics"))],
        path: "Plugins/Metrics"
    ),
    // CourierPostgres implements two protocols that live in other plugins,
    // `CredentialStoring` (CourierAuth) and `ResponseCaching` (CourierCache),
    // so it depends on those two as well (CourierAuth resolves no package,
    // CourierCache only swift-crypto). ServiceLifecycle, SwiftNIO's locks and
    // swift-crypto (SHA-256 of cache keys) come with postgres-nio.
    .target(
        name: "CourierPostgres",
        dependencies: [
            "Courier", "CourierAuth", "CourierCache",
            .product(name: "PostgresNIO", package: "postgres-nio", condition: when("Postgres")),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: when("Postgres")),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: when("Postgres")),
            .product(name: "Crypto", package: "swift-crypto", condition: when("Postgres")),
            .product(name: "NIOSSL", package: "swift-nio-ssl", condition: when("Postgres")),
        ],
        path: "Plugins/Stores/Postgres",
        exclude: ["CourierPostgres.docc"]
    ),

    // Mappers
    .target(name: "CourierCodable", dependencies: ["Courier"], path: "Mappers/Codable"),
    .target(name: "CourierJSON", dependencies: ["Courier"], path: "Mappers/JSON"),
    .target(name: "CourierString", dependencies: ["Courier"], path: "Mappers/String"),
    .target(name: "CourierImage", dependencies: ["Courier"], path: "Mappers/Image"),
    .target(
        name: "CourierXML",
        dependencies: ["Courier", .product(name: "XMLCoder", package: "XMLCoder", condition: when("XML"))],
        path: "Mappers/XML"
    ),
    .target(
        name: "CourierYAML",
        dependencies: ["Courier", .product(name: "Yams", package: "Yams", condition: when("YAML"))],
        path: "Mappers/YAML"
    ),
    .target(
        name: "CourierProtobuf",
        dependencies: ["Courier", .product(name: "SwiftProtobuf", package: "swift-protobuf", condition: when("Protobuf"))],
        path: "Mappers/Protobuf"
    ),

    // Test support: a SwiftNIO HTTP server on 127.0.0.1, shared by the demo,
    // the examples and the tests. Not a product, so no consumer builds it.
    // Optimised even in debug builds: it hashes and generates tens of megabytes
    // per test, which takes seconds unoptimised.
    // The thread sanitizer's suppressions, read from the test binary itself.
    .target(name: "CTSanDefaults", path: "Tests/TSanDefaults"),
    .target(
        name: "CourierLoopback",
        dependencies: nio + [
            "CZlib", "CTSanDefaults",
            .product(name: "NIOHTTP2", package: "swift-nio-http2", condition: when("AsyncHTTPClient")),
            .product(name: "Crypto", package: "swift-crypto", condition: when("AsyncHTTPClient")),
        ],
        path: "Tests/Loopback",
        exclude: ["Certificates"],
        swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
    ),
    .target(name: "CourierTestSupport", dependencies: ["Courier", "CourierLoopback", "CTSanDefaults"], path: "Tests/Support"),

    // Examples
    .executableTarget(
        name: "Demo",
        dependencies: [
            "Courier", "CourierLoopback", "CourierCodable", "CourierLogging", "CourierAuth", "CourierGzip",
            "CourierCache", "CourierRetry",
        ],
        path: "Examples/Demo"
    ),
    // The example's session plugin is a library of its own, on `Courier`
    // alone: the example runs it, IntegrationTests tests it, and
    // .ci/outside-plugins builds a copy of it from another package.
    .target(name: "SessionPluginExample", dependencies: ["Courier"], path: "Examples/CustomPlugin/Plugin"),
    .executableTarget(
        name: "CustomPlugin",
        dependencies: ["Courier", "CourierLoopback", "SessionPluginExample"],
        path: "Examples/CustomPlugin",
        exclude: ["Plugin"]
    ),
    // A client generated once by swift-openapi-generator from
    // Examples/OpenAPIClient/GreetingsAPI/openapi.yaml and committed (see the
    // README there), used by the OpenAPI example and CourierOpenAPI's tests.
    .target(
        name: "GreetingsAPI",
        dependencies: [
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: when("OpenAPI")),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: when("OpenAPI")),
        ],
        path: "Examples/OpenAPIClient/GreetingsAPI",
        exclude: ["openapi.yaml", "openapi-generator-config.yaml", "README.md"],
        // The generator marks its access-level imports to be ignored by
        // compilers from 6.4 on; this one warns about the unused ones in the
        // empty component files.
        swiftSettings: [.unsafeFlags(["-suppress-warnings"])]
    ),
    // Worker processes sharing one PostgreSQL: also the other processes of
    // CourierPostgres's tests, which run it in worker mode.
    .executableTarget(
        name: "Fleet",
        dependencies: [
            "Courier", "CourierAuth", "CourierCache", "CourierPostgres", "CourierFleetSupport", "CourierLoopback",
        ],
        path: "Examples/Fleet"
    ),
    // What the Fleet example and CourierPostgres's tests share: a throwaway
    // PostgreSQL server in a temporary folder, a token server that rotates
    // refresh tokens, and worker processes to talk to. Not a product.
    .target(
        name: "CourierFleetSupport",
        dependencies: [
            "CourierLoopback",
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: when("AsyncHTTPClient")),
        ],
        path: "Tests/FleetSupport"
    ),
    .executableTarget(
        name: "OpenAPIClient",
        dependencies: ["Courier", "CourierOpenAPI", "CourierAuth", "CourierRetry", "CourierLoopback", "GreetingsAPI"],
        path: "Examples/OpenAPIClient/Sources"
    ),
]

// One test target per module.
let testedModules = [
    "Courier", "CourierLogging", "CourierAuth", "CourierGzip", "CourierCache", "CourierRetry", "CourierCombine",
    "CourierAsyncHTTPClient", "CourierOpenAPI", "CourierTracing", "CourierMetrics", "CourierCodable", "CourierJSON",
    "CourierString", "CourierImage", "CourierXML", "CourierYAML", "CourierProtobuf", "CourierPostgres",
]
// What a module's tests need beyond the module and the test support.
let extraTestDependencies: [String: [Target.Dependency]] = [
    // A transport that leaves bodies encoded (decoding off), for streamed decoding.
    "CourierGzip": ["CourierAsyncHTTPClient"],
    // Gzip and deflate bodies to decode, and a client that decompresses itself.
    "CourierAsyncHTTPClient": [
        "CourierGzip",
        .product(name: "NIOHTTPCompression", package: "swift-nio-extras", condition: when("AsyncHTTPClient")),
    ],
    "CourierOpenAPI": [
        "GreetingsAPI", "CourierAuth", "CourierRetry", "CourierCache", "CourierAsyncHTTPClient",
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: when("OpenAPI")),
        .product(name: "HTTPTypes", package: "swift-http-types", condition: when("OpenAPI")),
    ],
    "CourierTracing": [
        "CourierRetry",
        .product(name: "Tracing", package: "swift-distributed-tracing", condition: when("Tracing")),
        .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: when("Tracing")),
    ],
    "CourierMetrics": [
        "CourierRetry", "CourierAuth", "CourierCache",
        .product(name: "CoreMetrics", package: "swift-metrics", condition: when("Metrics")),
        .product(name: "MetricsTestKit", package: "swift-metrics", condition: when("Metrics")),
    ],
    "CourierPostgres": [
        "CourierAuth", "CourierCache", "CourierFleetSupport", "Fleet",
        .product(name: "PostgresNIO", package: "postgres-nio", condition: when("Postgres")),
    ],
]
for module in testedModules {
    targets.append(.testTarget(
        name: "\(module)Tests",
        dependencies: [.target(name: module), "CourierTestSupport"] + (extraTestDependencies[module] ?? []),
        path: "Tests/\(module)Tests"
    ))
}

// Moya's own specs, re-expressed: what a Moya user relies on, across the core,
// the mappers, the auth and logging plugins and Combine.
targets.append(.testTarget(
    name: "MoyaCompatibilityTests",
    dependencies: [
        "Courier", "CourierCodable", "CourierJSON", "CourierString", "CourierImage", "CourierAuth", "CourierLogging",
        "CourierCombine", "CourierTestSupport",
        .product(name: "Logging", package: "swift-log", condition: when("Logging")),
    ],
    path: "Tests/MoyaCompatibilityTests"
))

// Every shipped plugin together, in every order.
targets.append(.testTarget(
    name: "IntegrationTests",
    dependencies: [
        "Courier", "CourierLogging", "CourierAuth", "CourierGzip", "CourierCache", "CourierRetry", "CourierTestSupport",
        "CourierAsyncHTTPClient", "CourierTracing", "CourierMetrics", "SessionPluginExample",
        .product(name: "Logging", package: "swift-log", condition: when("Logging")),
    ],
    path: "Tests/IntegrationTests"
))

// The code of the documentation catalogs' articles, compiled and run.
targets.append(.testTarget(
    name: "DocumentationTests",
    dependencies: [
        "Courier", "CourierCodable", "CourierJSON", "CourierString", "CourierImage", "CourierXML", "CourierYAML",
        "CourierProtobuf", "CourierLogging", "CourierAuth", "CourierGzip", "CourierCache", "CourierRetry",
        "CourierCombine", "CourierAsyncHTTPClient", "CourierOpenAPI", "CourierTracing", "CourierMetrics", "GreetingsAPI",
        "CourierTestSupport",
        .product(name: "Logging", package: "swift-log", condition: when("Logging")),
        .product(name: "SwiftProtobuf", package: "swift-protobuf", condition: when("Protobuf")),
        .product(name: "Tracing", package: "swift-distributed-tracing", condition: when("Tracing")),
        .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: when("Tracing")),
        .product(name: "MetricsTestKit", package: "swift-metrics", condition: when("Metrics")),
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: when("OpenAPI")),
        "CourierPostgres",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: when("Postgres")),
    ],
    path: "Tests/DocumentationTests"
))

// MARK: - Settings for every target

let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// Generated code is compiled as the generator wrote it.
for index in targets.indices where targets[index].type != .system && targets[index].name != "GreetingsAPI" {
    targets[index].swiftSettings = (targets[index].swiftSettings ?? []) + upcomingFeatures
}

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: products,
    traits: traits,
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // TLS and HTTP/2, which AsyncHTTPClient brings anyway: its transport's
        // trust settings, and the loopback server's HTTPS.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // AsyncHTTPClient's decompression settings, which a test sets on a client.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.26.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/CoreOffice/XMLCoder.git", from: "0.18.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.9.0"..<"5.0.0"),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
