import Courier

/// One event of a request with progress: transfer progress, then the response.
///
/// ```swift
/// provider.requestWithProgressPublisher(.download)
///     .sink(receiveCompletion: { _ in }, receiveValue: { event in
///         switch event {
///         case .progress(let progress): print(progress.fractionCompleted ?? 0)
///         case .response(let response): print(response.statusCode)
///         }
///     })
/// ```
public enum ProgressResponse: Sendable {
    /// Upload or download progress, in order.
    case progress(TransferProgress)
    /// The response, after every plugin and the validation; always the last value.
    case response(Response)

    /// The progress, when this event is one.
    public var progress: TransferProgress? {
        if case .progress(let progress) = self { return progress }
        return nil
    }

    /// The response, when this event is the final one.
    public var response: Response? {
        if case .response(let response) = self { return response }
        return nil
    }
}
