package rawfile

const sysPreadv2 = 286
