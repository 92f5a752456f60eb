import Courier
import CourierTestSupport
import Foundation
import Testing

/// Sends `target` and returns the `NetworkError` it failed with, recording an
/// issue when it succeeded.
func failure(of target: TestTarget, on provider: Provider<TestTarget>, progress: ProgressHandler? = nil) async -> NetworkError? {
    do {
        let response = try await provider.request(target, options: RequestOptions(progress: progress))
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

/// A progress handler that ignores what it is told, when `streamed`: handing
/// one over makes a transport take its streaming path instead of collecting
/// the body whole.
func progress(streamed: Bool) -> ProgressHandler? {
    guard streamed else { return nil }
    return { _ in }
}
