// swift-tools-version: 6.1
import PackageDescription

// MARK: - Traits
//
// Every optional package dependency is used only `.when(traits:)` its trait is
// on. All traits are on by default, so adding a product just works; a consumer
// who names only the traits it needs resolves only those packages.

let traits: Set<Trait> = [
    .trait(
        name: "AsyncHTTPClient",
        description: "CourierAsyncHTTPClient, and the SwiftNIO loopback server used by the demo, examples and tests."
    ),
    .default(enabledTraits: ["AsyncHTTPClient"]),
]

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
    .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
    .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
]

// MARK: - Targets

var targets: [Target] = [
    .target(name: "Courier", path: "Core"),

    // Shared by the demo, the examples and the tests: a SwiftNIO HTTP server on
    // 127.0.0.1. Not a product, so no consumer ever builds it.
    .target(name: "CourierLoopback", dependencies: nio, path: "Tests/Loopback"),
    .target(
        name: "CourierTestSupport",
        dependencies: ["Courier", "CourierLoopback"],
        path: "Tests/Support"
    ),
    .testTarget(name: "CourierTests", dependencies: ["Courier", "CourierTestSupport"], path: "Tests/CourierTests"),

    .executableTarget(name: "Demo", dependencies: ["Courier", "CourierLoopback"], path: "Examples/Demo"),
]

// MARK: - Settings for every target

let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

for index in targets.indices where targets[index].type != .system {
    targets[index].swiftSettings = (targets[index].swiftSettings ?? []) + upcomingFeatures
}

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
    ],
    traits: traits,
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
