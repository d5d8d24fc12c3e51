"""What callers send, read and checked: numbers, GeoJSON, CRSs, input rules. May import: errors."""
