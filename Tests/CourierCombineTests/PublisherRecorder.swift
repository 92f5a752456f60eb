import Courier
import CourierCombine
import CourierTestSupport
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// Subscribes to a publisher and lets a test await its values and completion.
final class PublisherRecorder<Output: Sendable>: @unchecked Sendable {
    private let values = Mutex<[Output]>([])
    private let finished = Mutex<(completion: Subscribers.Completion<NetworkError>?,
                                  waiter: CheckedContinuation<Void, Never>?)>((nil, nil))
    private let subscription = Mutex<AnyCancellable?>(nil)

    init(_ publisher: AnyPublisher<Output, NetworkError>) {
        let cancellable = publisher.sink(
            receiveCompletion: { [self] completion in
                let waiter = finished.withLock { state in
                    state.completion = completion
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            },
            receiveValue: { [self] value in values.withLock { $0.append(value) } }
        )
        subscription.withLock { $0 = cancellable }
    }

    /// The values received so far.
    var received: [Output] { values.withLock { $0 } }

    /// Waits for the completion and returns it with every value.
    func completion() async -> (values: [Output], completion: Subscribers.Completion<NetworkError>) {
        await withCheckedContinuation { continuation in
            let done = finished.withLock { state in
                if state.completion != nil { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
        let completion = finished.withLock { $0.completion } ?? .finished
        return (received, completion)
    }

    /// Cancels the subscription.
    func cancel() {
        subscription.withLock { $0 }?.cancel()
    }
}

/// Maps a response to its body length.
struct LengthMapper: ResponseMapper {
    func map(_ response: Response) throws -> Int { response.data.count }
}

/// A mapper that always fails.
struct FailingMapper: ResponseMapper {
    struct Refused: Error {}
    func map(_ response: Response) throws -> Int { throw Refused() }
}
