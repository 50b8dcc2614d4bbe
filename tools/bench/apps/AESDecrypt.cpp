// AESDecrypt: the AESEncrypt app with the timed direction reversed (device
// decryption of a host-encrypted image).  See AESEncrypt.cpp.
#define AES_DECRYPT_APP 1
#include "AESEncrypt.cpp"
