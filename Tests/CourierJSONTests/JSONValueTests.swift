import CourierJSON
import Foundation
import Testing

@Suite struct JSONValueTests {
    private let sample: JSONValue = [
        "data": ["items": [["id": 1, "name": "one"], ["id": 9_007_199_254_740_993, "name": "big"]]],
        "ok": true,
        "ratio": 0.25,
        "missing": nil,
    ]

    @Test func subscriptsReturnOptionals() {
        #expect(sample["data"]?["items"]?[1]?["name"]?.stringValue == "big")
        #expect(sample["data"]?["items"]?[2] == nil)
        #expect(sample["nope"] == nil)
        #expect(sample[0] == nil)
        #expect(sample["ok"]?["x"] == nil)
        #expect(sample["missing"]?.isNull == true)
    }

    @Test func typedAccessorsConvertOnlyWhatFits() {
        #expect(sample["ok"]?.boolValue == true)
        #expect(sample["ok"]?.intValue == nil)
        #expect(sample["ratio"]?.doubleValue == 0.25)
        #expect(sample["ratio"]?.intValue == nil)
        #expect(JSONValue.double(3).intValue == 3)
        #expect(sample["data"]?["items"]?.arrayValue?.count == 2)
        #expect(sample["data"]?.objectValue?.keys.sorted() == ["items"])
        #expect(sample.value(atKeyPath: "data.items[1].id")?.int64Value == 9_007_199_254_740_993)
        #expect(sample.value(atKeyPath: "data.items[5]") == nil)
    }

    @Test func integersBeyondDoublePrecisionStayExact() throws {
        let data = Data(#"{"id": 9007199254740993, "max": 9223372036854775807, "min": -9223372036854775808}"#.utf8)
        let value = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(value["id"] == .integer(9_007_199_254_740_993))
        #expect(value["max"]?.int64Value == Int64.max)
        #expect(value["min"]?.int64Value == Int64.min)
        let reencoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(reencoded["id"]?.int64Value == 9_007_199_254_740_993)
    }

    @Test func integersAboveInt64MaxStayExact() throws {
        let data = Data(#"{"max": 18446744073709551615, "next": 9223372036854775808}"#.utf8)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        let serialized = try #require(JSONValue(jsonObject: try JSONSerialization.jsonObject(with: data)))
        for value in [decoded, serialized] {
            #expect(value["max"] == .unsignedInteger(18_446_744_073_709_551_615))
            #expect(value["max"]?.uint64Value == UInt64.max)
            #expect(value["next"]?.uint64Value == 9_223_372_036_854_775_808)
            #expect(value["max"]?.int64Value == nil)
        }
        #expect(decoded.compactDescription.contains("18446744073709551615"))
        let reencoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(decoded))
        #expect(reencoded["max"]?.uint64Value == UInt64.max)
        #expect(JSONValue.unsignedInteger(5) == .integer(5))
        #expect(JSONValue.unsignedInteger(UInt64.max) != .double(Double(UInt64.max)))
        #expect(Set<JSONValue>([.unsignedInteger(7), .integer(7), .double(7)]).count == 1)
    }

    @Test func numbersCompareAndHashByValue() {
        #expect(JSONValue.integer(1) == .double(1))
        #expect(JSONValue.integer(1) != .double(1.5))
        #expect(JSONValue.integer(1) != .bool(true))
        #expect(Set<JSONValue>([.integer(2), .double(2), .string("2")]).count == 2)
    }

    @Test func descriptionIsPrettySortedJSON() throws {
        let value: JSONValue = ["b": [1, "x\n\"y\""], "a": nil, "c": [:], "d": []]
        #expect(value.description == """
        {
          "a": null,
          "b": [
            1,
            "x\\n\\"y\\""
          ],
          "c": {},
          "d": []
        }
        """)
        #expect(value.compactDescription == #"{"a":null,"b":[1,"x\n\"y\""],"c":{},"d":[]}"#)
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(value.description.utf8)) == value)
    }

    @Test func convertsFromAndToJSONSerializationObjects() throws {
        let data = Data(#"{"flag":false,"n":12,"x":1.5,"s":"t","list":[null,true]}"#.utf8)
        let object = try JSONSerialization.jsonObject(with: data)
        let value = try #require(JSONValue(jsonObject: object))
        #expect(value == ["flag": false, "n": 12, "x": 1.5, "s": "t", "list": [nil, true]])
        #expect(value["flag"] == .bool(false))
        #expect(JSONValue(jsonObject: value.jsonObject) == value)
        #expect(JSONValue(jsonObject: Date()) == nil)
    }
}
