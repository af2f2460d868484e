package rawfile

const sysPreadv2 = 327
