import Courier
import CourierTestSupport
import Foundation
import Testing

/// Sends `target` and returns the `NetworkError` it failed with, recording an
/// issue when it succeeded.
func failure(of target: TestTarget, on provider: Provider<TestTarget>) async -> NetworkError? {
    do {
        let response = try await provider.request(target)
        Issue.record("expected a failure, got status \(response.statusCode)")
        return nil
    } catch {
        return error
    }
}

/// Progress reports of one direction, in the order they arrived.
func reports(_ all: [TransferProgress], _ direction: TransferProgress.Direction) -> [TransferProgress] {
    all.filter { $0.direction == direction }
}
