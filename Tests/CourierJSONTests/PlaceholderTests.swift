import CourierJSON
import Testing

@Test func placeholderJSONLinks() {}
