package stacks

// InFlight is the number of events waiting for their stacks, and of
// threads holding them: the Joiner's memory beyond its interned stacks.
func (j *Joiner) InFlight() (events, threads int) {
	for _, th := range j.threads {
		events += len(th.fresh) + len(th.waiting)
	}
	return events, len(j.threads)
}

// NumStacks is the number of distinct stacks so far; StackIDs run from 0
// to NumStacks-1.
func (j *Joiner) NumStacks() int { return len(j.stacks.stacks) }

// Addresses appends the addresses of stack id, leaf first: its kernel
// part, then its user part. A part whose stack-cache key was never
// defined adds nothing.
func (j *Joiner) Addresses(dst []uint64, id StackID) []uint64 {
	s := &j.stacks.stacks[id]
	for _, p := range [2]part{s.kernel, s.user} {
		switch p.kind {
		case partFrames:
			dst = append(dst, j.seqs.get(p.id)...)
		case partSlot:
			if seq := j.slots.seq[p.id]; seq >= 0 {
				dst = append(dst, j.seqs.get(uint32(seq))...)
			}
		}
	}
	return dst
}

// Frames appends the frames of stack id, leaf first, each placed in the
// .NET method or the image that held its address at the time of the
// stack's first sample in its process: a method of the process first,
// then for a kernel address the kernel's images, else the process's
// images; return addresses (every frame after the first) one byte back.
// Ask after Close, when the rundowns at the end of the trace are
// known.
func (j *Joiner) Frames(dst []Frame, id StackID) []Frame {
	if j.resolve == nil {
		j.resolve = make(map[resolveKey]Frame)
	}
	s := j.stacks.stacks[id]
	j.addrs = j.Addresses(j.addrs[:0], id)
	for i, a := range j.addrs {
		// Every frame but the first is a return address, which may lie
		// just past the end of its caller when the call is the caller's
		// last instruction: it is looked up one byte back.
		at := a
		if i > 0 && a > 0 {
			at--
		}
		k := resolveKey{s.pid, s.gen, at}
		f, ok := j.resolve[k]
		if !ok {
			f = j.lookup(s.pid, at, s.time)
			j.resolve[k] = f
		}
		f.Address = a
		dst = append(dst, f)
	}
	return dst
}

func (j *Joiner) lookup(pid uint32, addr uint64, at int64) Frame {
	f := Frame{Address: addr}
	if rs := j.methods[pid]; rs != nil && pid != unknownPID {
		if m := rs.find(addr, at); m != nil {
			f.Method = m
		}
	}
	order := [2]uint32{pid, kernelPID}
	if addr >= KernelBoundary(max(j.pointerSize, 4)) {
		order = [2]uint32{kernelPID, pid}
	}
	for _, p := range order {
		if rs := j.images[p]; rs != nil {
			if m := rs.find(addr, at); m != nil {
				f.Module = m
				return f
			}
		}
	}
	return f
}

// Modules returns the images the trace maps into process pid, in no
// particular order; the kernel's images are those of KernelModules.
func (j *Joiner) Modules(pid uint32) []*Module {
	if rs := j.images[pid]; rs != nil && pid != kernelPID {
		return rs.items
	}
	return nil
}

// KernelModules returns the kernel's images.
func (j *Joiner) KernelModules() []*Module {
	if rs := j.images[kernelPID]; rs != nil {
		return rs.items
	}
	return nil
}
