-- One fleet breaker's Sync, atomic: the normative state machine of
-- docs/fleet.md (runtime/fleetmem.go is the same in Go).
--
-- KEYS[1] state hash, KEYS[2] window (a list of one-char outcomes for a
-- count window, a hash of per-second buckets "calls failed slow" for a
-- time window); both in one cluster slot (hash tag).
-- ARGV: 1 gen, 2 countWindow (0: time window), 3 timeWindow seconds,
-- 4 minimumCalls, 5 failure %, 6 slow %, 7 waitInOpen ms,
-- 8 halfOpenCalls, 9 permitLease ms, 10-13 closed ok/failed/slow/failedSlow,
-- 14-17 trials ok/failed/slow/failedSlow, 18 returned, 19 want,
-- 20 the key as the messages name it, 21 channel,
-- 22 state TTL ms, 23 window TTL ms.
-- Returns {gen, state, openFor ms, granted, calls, failed, slow, cause}.
--
-- Numbers go to Redis through string.format('%d'): a generation
-- (ms × 1024, about 2^51) would lose digits in Lua's default "%.14g".
local sk, wk = KEYS[1], KEYS[2]
local function int(n) return string.format('%d', n) end

-- Every value read from Redis is untrusted: any client of the server can
-- write the keys. maxGen keeps generations exact in Lua's doubles (2^53 -
-- 2^32: room for 2^32 changes); maxNum bounds every other stored number.
local maxGen, maxNum = 9007194959773696, 9007199254740992
local function intIn(v, lo, hi) return v ~= nil and v == math.floor(v) and v >= lo and v <= hi end
local function num(s)
	local v = tonumber(s)
	if intIn(v, 0, maxNum) then return v end
	return 0
end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local reqGen = tonumber(ARGV[1])
local cw, tws = tonumber(ARGV[2]), tonumber(ARGV[3])
local minCalls = tonumber(ARGV[4])
local failPct, slowPct = tonumber(ARGV[5]), tonumber(ARGV[6])
local wait, half, lease = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local cOK, cF, cS, cFS = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local tOK, tF, tS, tFS = tonumber(ARGV[14]), tonumber(ARGV[15]), tonumber(ARGV[16]), tonumber(ARGV[17])
local returned, want = tonumber(ARGV[18]), tonumber(ARGV[19])

-- A key of another type than the script writes is dropped.
local function typeOf(k) return redis.call('TYPE', k)['ok'] end
local kt = typeOf(sk)
if kt ~= 'hash' and kt ~= 'none' then redis.call('DEL', sk) end
kt = typeOf(wk)
if kt ~= 'none' and kt ~= (cw > 0 and 'list' or 'hash') then redis.call('DEL', wk) end

-- s: the state; field names are short, they are stored per breaker.
-- g gen, st state (0 closed, 1 open, 2 half-open), ou openUntil ms,
-- c cause, wc/wf/ws window totals, wl the time window's newest second,
-- pc/pf/ps tripped totals, hc/hf/hs trial totals, tk taken, lg lastGrant.
-- o keeps the stored values: only the fields that differ are written.
-- HMGET of these fields only: other fields someone added cost nothing.
local F = {'g', 'st', 'ou', 'c', 'wc', 'wf', 'ws', 'wl', 'pc', 'pf', 'ps', 'hc', 'hf', 'hs', 'tk', 'lg'}
local s, o = {}, {}
local raw = redis.call('HMGET', sk, unpack(F))
local valid = true
for i, k in ipairs(F) do
	local v = tonumber(raw[i])
	s[k], o[k] = v, v
	if not intIn(v, 0, maxNum) then valid = false end
end
local wrote, changed = false, false -- wrote: the window
local function fresh(g)
	s = {g = g, st = 0, ou = 0, c = 0, wc = 0, wf = 0, ws = 0, wl = 0,
		pc = 0, pf = 0, ps = 0, hc = 0, hf = 0, hs = 0, tk = 0, lg = 0}
	redis.call('DEL', wk)
end

if s.g == nil and raw[1] == false then
	-- 1. a new (or expired) breaker: a generation no replica has seen.
	fresh(now * 1024)
elseif not (valid and intIn(s.g, 1, maxGen) and intIn(s.st, 0, 2) and intIn(s.c, 0, 3)) then
	-- A state no Sync writes (a missing field, a number out of range, an
	-- unknown state): it starts anew, closed and empty, as a new breaker,
	-- above the old generation when that one is valid; announced.
	local g = now * 1024
	if intIn(s.g, 1, maxGen - 1) and s.g >= g then g = s.g + 1 end
	fresh(g)
	changed = true
else
	-- Range checks against the breaker's own policy: an open lasts at
	-- most waitInOpen from now; a grant is never in the future (or the
	-- lease would never end); at most halfOpenCalls trials and permits;
	-- no total above its own count.
	if s.st == 1 then s.ou = math.min(s.ou, now + wait) end
	s.lg = math.min(s.lg, now)
	s.hc = math.min(s.hc, half)
	s.tk = math.min(s.tk, half)
	s.hf, s.hs = math.min(s.hf, s.hc), math.min(s.hs, s.hc)
	s.pf, s.ps = math.min(s.pf, s.pc), math.min(s.ps, s.pc)
	-- The window: its totals must be those of the list (count window),
	-- its newest second not beyond a window ahead of the clock (a time
	-- window); else it starts empty. A window that went without its state
	-- (evicted: a time window's key has the shorter TTL) took its totals
	-- with it.
	local bad = s.wf > s.wc or s.ws > s.wc
	if cw > 0 then
		bad = bad or s.wc > cw or redis.call('LLEN', wk) ~= s.wc
	else
		bad = bad or s.wl > math.floor(now / 1000) + tws or (s.wc ~= 0 and redis.call('EXISTS', wk) == 0)
	end
	if bad then
		redis.call('DEL', wk)
		s.wc, s.wf, s.ws, s.wl = 0, 0, 0, 0
	end
end

local function over(n, of, pct) return pct > 0 and n * 100 >= pct * of end
local function exceeded(c, f, sl)
	return c > 0 and (over(f, c, failPct) or over(sl, c, slowPct))
end
local function emptyWindow()
	redis.call('DEL', wk)
	s.wc, s.wf, s.ws, s.wl = 0, 0, 0, 0
end
local function open(c, f, sl)
	s.g, s.st, s.ou = s.g + 1, 1, now + wait
	s.pc, s.pf, s.ps = c, f, sl
	changed = true
end

-- 2. the wait is over: half-open.
if s.st == 1 and now >= s.ou then
	s.g, s.st, s.c = s.g + 1, 2, 2
	s.hc, s.hf, s.hs, s.tk, s.lg = 0, 0, 0, 0, 0
	changed = true
end

-- A time window's totals follow the clock on every Sync (runtime/window.go
-- advance): the buckets of seconds ≤ sec - n drop out. A clock that steps
-- back lands in the newest bucket.
local sec = math.floor(now / 1000)
if s.st == 0 and cw == 0 then
	if sec > s.wl then
		if sec - s.wl >= tws then
			if s.wc ~= 0 or s.wl ~= 0 then redis.call('DEL', wk) end
			s.wc, s.wf, s.ws = 0, 0, 0
		else
			for old = s.wl - tws + 1, sec - tws do
				local b = redis.call('HGET', wk, int(old))
				if b then
					local c, f, sl = string.match(b, '(%d+) (%d+) (%d+)')
					s.wc, s.wf, s.ws = s.wc - num(c), s.wf - num(f), s.ws - num(sl)
					redis.call('HDEL', wk, int(old))
				end
			end
		end
		s.wl = sec
	end
	sec = s.wl
end

if reqGen == s.g then
	local n = cOK + cF + cS + cFS
	if s.st == 0 and n > 0 then
		-- 3a. closed: the outcomes go into the window.
		if cw > 0 then
			-- count window: OK, Slow, Failed, FailedSlow, in that order;
			-- of a batch longer than the window only its tail matters.
			local kinds = {{'o', cOK}, {'s', cS}, {'f', cF}, {'x', cFS}}
			if n >= cw then
				emptyWindow()
				local skip = n - cw
				for _, k in ipairs(kinds) do
					local d = math.min(k[2], skip)
					k[2], skip = k[2] - d, skip - d
				end
			end
			local chunk = {}
			for _, k in ipairs(kinds) do
				for _ = 1, k[2] do
					chunk[#chunk + 1] = k[1]
					if #chunk == 1000 then
						redis.call('RPUSH', wk, unpack(chunk))
						chunk = {}
					end
				end
			end
			if #chunk > 0 then redis.call('RPUSH', wk, unpack(chunk)) end
			local kept = math.min(n, cw)
			local kf, ks = 0, 0
			for _, k in ipairs(kinds) do
				if k[1] == 'f' or k[1] == 'x' then kf = kf + k[2] end
				if k[1] == 's' or k[1] == 'x' then ks = ks + k[2] end
			end
			s.wc, s.wf, s.ws = s.wc + kept, s.wf + kf, s.ws + ks
			local extra = redis.call('LLEN', wk) - cw
			local popped = extra > 0 and redis.call('LPOP', wk, extra)
			if popped then
				for _, o in ipairs(popped) do
					s.wc = s.wc - 1
					if o == 'f' or o == 'x' then s.wf = s.wf - 1 end
					if o == 's' or o == 'x' then s.ws = s.ws - 1 end
				end
			end
		else
			local b = redis.call('HGET', wk, int(sec))
			local c, f, sl = 0, 0, 0
			if b then
				local bc, bf, bs = string.match(b, '(%d+) (%d+) (%d+)')
				c, f, sl = num(bc), num(bf), num(bs)
			end
			c, f, sl = c + n, f + cF + cFS, sl + cS + cFS
			redis.call('HSET', wk, int(sec), int(c) .. ' ' .. int(f) .. ' ' .. int(sl))
			s.wc, s.wf, s.ws = s.wc + n, s.wf + cF + cFS, s.ws + cS + cFS
		end
		wrote = true
		if s.wc >= minCalls and exceeded(s.wc, s.wf, s.ws) then
			open(s.wc, s.wf, s.ws)
			s.c = 1
			emptyWindow()
		end
	elseif s.st == 2 then
		-- 3b. half-open: permits given back (permits used are never
		-- offered again: taken ≥ the trials recorded before this
		-- request's), then the trials, failures first so that a capped
		-- batch cannot hide one.
		s.tk = math.max(s.tk - returned, s.hc)
		local room = half - s.hc
		for _, k in ipairs({{tFS, true, true}, {tF, true, false}, {tS, false, true}, {tOK, false, false}}) do
			local d = math.min(k[1], room)
			if d > 0 then
				room = room - d
				s.hc = s.hc + d
				if k[2] then s.hf = s.hf + d end
				if k[3] then s.hs = s.hs + d end
			end
		end
		if s.hc >= half then
			if exceeded(s.hc, s.hf, s.hs) then
				open(s.hc, s.hf, s.hs)
			else
				s.g, s.st = s.g + 1, 0
				emptyWindow()
				changed = true
			end
			s.c = 3
		end
	end
end

-- 4. trial permits, fleet-wide: at most halfOpenCalls taken in a
-- generation; permits unreported for a lease are offered again.
local grant = 0
if s.st == 2 and want > 0 then
	if s.tk > s.hc and now - s.lg >= lease then s.tk = s.hc end
	grant = math.max(math.min(want, half - s.tk), 0)
	if grant > 0 then
		s.tk, s.lg = s.tk + grant, now
	end
end

-- A forged time-window bucket or count-window entry must not drive the
-- totals out of range.
s.wc = math.max(s.wc, 0)
s.wf, s.ws = math.min(math.max(s.wf, 0), s.wc), math.min(math.max(s.ws, 0), s.wc)

-- Write the fields that changed; refresh both keys' expiry on any write.
local fields = {}
for k, v in pairs(s) do
	if o[k] ~= v then
		fields[#fields + 1] = k
		fields[#fields + 1] = int(v)
	end
end
if #fields > 0 then redis.call('HSET', sk, unpack(fields)) end
if #fields > 0 or wrote then
	redis.call('PEXPIRE', sk, ARGV[22])
	redis.call('PEXPIRE', wk, ARGV[23])
end

-- 5. the answer, and the announcement of a new generation.
local openFor, c, f, sl = 0, s.wc, s.wf, s.ws
if s.st == 1 then
	openFor = math.max(s.ou - now, 0)
	c, f, sl = s.pc, s.pf, s.ps
elseif s.st == 2 then
	c, f, sl = s.hc, s.hf, s.hs
end
-- The trials that decided a change stay as they were until the next
-- half-open.
local tc, tf, ts = 0, 0, 0
if s.c == 3 then tc, tf, ts = s.hc, s.hf, s.hs end
if changed then
	redis.call('PUBLISH', ARGV[21], '{"Key":' .. cjson.encode(ARGV[20]) ..
		',"Gen":' .. int(s.g) .. ',"State":' .. int(s.st) ..
		',"OpenFor":' .. int(openFor * 1000000) ..
		',"Calls":' .. int(c) .. ',"Failed":' .. int(f) .. ',"Slow":' .. int(sl) ..
		',"Cause":' .. int(s.c) ..
		',"TrialCalls":' .. int(tc) .. ',"TrialFailed":' .. int(tf) .. ',"TrialSlow":' .. int(ts) .. '}')
end
return {s.g, s.st, openFor, grant, c, f, sl, s.c, tc, tf, ts}
