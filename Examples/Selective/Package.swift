// swift-tools-version: 6.1
import PackageDescription

// A consumer that takes only Courier and CourierCodable, with every trait
// off: it must build without resolving a single other package (no NIO, no
// swift-log, no XMLCoder, Yams, SwiftProtobuf or OpenCombine). `check.sh`
// builds it and checks its Package.resolved.
let package = Package(
    name: "Selective",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    dependencies: [
        .package(name: "Courier", path: "../..", traits: []),
    ],
    targets: [
        .executableTarget(
            name: "Selective",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierCodable", package: "Courier"),
            ],
            path: "Sources/Selective"
        ),
    ],
    swiftLanguageModes: [.v6]
)
