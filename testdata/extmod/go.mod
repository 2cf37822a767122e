module example.com/extmod

go 1.26.0

require github.com/odekmem/odekmem v0.0.0

require (
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/coder/hnsw v0.6.1 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/google/renameio v1.0.1 // indirect
	github.com/openai/openai-go/v3 v3.98.0 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	github.com/viterin/vek v0.4.2 // indirect
	golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/odekmem/odekmem => ../..
