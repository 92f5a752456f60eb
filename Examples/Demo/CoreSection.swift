import Courier
import Foundation

/// Typed targets, plain requests, batches, chains and errors.
func runCoreSection(_ demo: DemoContext) async {
    demo.section("Core: a plain request")
    await demo.attempt("GET /users") {
        let provider = Provider<MultiTarget>()
        _ = provider
    }
}
