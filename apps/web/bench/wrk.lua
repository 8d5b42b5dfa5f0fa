-- The load of `npm run bench` (measure.ts, docs/performance.md "How to reproduce"): wrk sends the requests of a
-- file in turn, from a given line on, and reports its figures as one JSON line. A line is
-- "METHOD<tab>path<tab>Authorization value or empty<tab>JSON body or empty".
-- Usage: wrk -t1 -c<n> -d<s>s -s wrk.lua <base URL> -- <file> <first line>
local requests, count, at = {}, 0, 0

function init(args)
  for line in io.lines(args[1]) do
    local method, path, authorization, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
    local headers = {}
    if authorization ~= "" then headers["Authorization"] = authorization end
    if body ~= "" then headers["Content-Type"] = "application/json" else body = nil end
    count = count + 1
    requests[count] = wrk.format(method, path, headers, body)
  end
  at = (tonumber(args[2]) or 0) % count
end

function request()
  at = at % count + 1
  return requests[at]
end

-- The latency distribution as 1,000 quantiles (the 0.05th, 0.15th, ... percentiles, in microseconds), so that
-- rounds can be merged weighted by their requests.
function done(summary, latency, _)
  local quantiles = {}
  for k = 1, 1000 do quantiles[k] = latency:percentile((k - 0.5) / 10) end
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests":%d,"durationUs":%d,"errors":%d,"non2xx":%d,"quantilesUs":[%s]}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    table.concat(quantiles, ",")))
end
