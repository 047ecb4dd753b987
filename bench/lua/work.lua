-- SPDX-License-Identifier: GPL-2.0-only
-- The workload of bench/instrument.sh: function-call heavy Lua, so the
-- interpreter's C functions (luaV_execute, luaD_precall, luaH_get, the
-- string and table libraries) are entered often and the cost of an
-- instrumentation site shows.  Size: the environment's WORK_SIZE (default
-- 10).  Prints a checksum that does not depend on the build, so every
-- variant's output can be compared.
local size = tonumber(os.getenv("WORK_SIZE") or "10")

local function fib(n)
	if n < 2 then return n end
	return fib(n - 1) + fib(n - 2)
end

-- A small linear congruential generator: the same numbers on every machine.
local seed = 12345
local function rand()
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed
end

local function sorting(n)
	local t = {}
	for i = 1, n do t[i] = { key = rand() % 100000, id = i } end
	table.sort(t, function(a, b)
		if a.key ~= b.key then return a.key < b.key end
		return a.id < b.id
	end)
	local sum = 0
	for i = 1, n, 97 do sum = (sum + t[i].key * i) % 1000000007 end
	return sum
end

local function strings(n)
	local parts = {}
	for i = 1, n do
		parts[#parts + 1] = string.format("%d:%s", i, string.rep("x", i % 7))
	end
	local s = table.concat(parts, ",")
	local count = 0
	for w in s:gmatch("(%d+):x+") do count = count + #w end
	return #s + count + #s:upper():lower()
end

local function closures(n)
	local function counter(step)
		local c = 0
		return function() c = c + step; return c end
	end
	local total = 0
	for i = 1, n do
		local f = counter(i % 5 + 1)
		f(); total = total + f()
	end
	return total
end

local checksum = 0
for round = 1, size do
	checksum = (checksum + fib(22)) % 1000000007
	checksum = (checksum + sorting(20000)) % 1000000007
	checksum = (checksum + strings(20000)) % 1000000007
	checksum = (checksum + closures(50000)) % 1000000007
end
print(string.format("checksum %d size %d", checksum, size))
